"""The configuration of ``duetime serve``: flags, ``DUETIME_*`` variables, checks.

Every setting is a ``duetime serve`` flag and a ``DUETIME_*`` environment
variable (:data:`SETTINGS`); a flag given on the command line wins over the
variable, the variable over the default. :func:`resolve` merges them into one
:class:`ServerConfig` and checks it as a whole (a key without a certificate,
a file that cannot be read, a token file without tokens, two listeners on one
port …), raising :class:`ConfigError` naming the flag or variable and what is
wrong; the command line reports it as a usage error (exit code 2).

The same parsers check a flag (through argparse, see :func:`argument_type`)
and a variable, so both say the same thing about a bad value.

Nothing here opens a socket or the ledger. :meth:`ServerConfig.describe` is the
effective configuration for the start-up log: it never holds a secret (no
token, no database password; files are named, not shown).
"""

from __future__ import annotations

import argparse
import hashlib
import math
import os
import re
import ssl
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit

from duetime.app.limits import check_namespace
from duetime.app.calendars import DEFAULT_MEMORY_BUDGET
from duetime.catalog import default_dir
from duetime.core import InvalidArgument
from duetime.ledger import postgres_label, postgres_url

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 50051
DEFAULT_GRACE = 5.0
"""Seconds in-flight calls may run on after SIGINT/SIGTERM."""
DEFAULT_MAX_MESSAGE_BYTES = 16 << 20
"""Largest request message accepted, the same over gRPC (its
``grpc.max_receive_message_length``, refused from the message's length
prefix) and HTTP/JSON (a body, refused with 413 while it is read): a batch of
10,000 items whose inline calendars take 1.6 KB each."""
DEFAULT_MAX_BATCH_ITEMS = 1_000
DEFAULT_MAX_BATCH_CALENDAR_WEIGHT = 6_000
"""Most items one BatchComputeDueTimes request (or one stream message) may hold."""
DEFAULT_CALL_BUDGET = 30.0
"""Seconds of server time one call (one stream chunk) may take."""
DEFAULT_BODY_TIMEOUT = 10.0
"""Seconds an HTTP client has to send a request's whole body (408 after)."""
DEFAULT_TENANT_CALLS = 4
"""Calls one tenant (token) may have in flight at once, over both faces: half
of the 8 threads that answer calls, so a second tenant always finds some."""
MAX_GRPC_LENGTH = 2**31 - 1
"""gRPC's largest message length setting."""
LOG_FORMATS = ("text", "json")
MAX_WORKERS = 64
"""Most worker processes ``--workers`` may start."""


class ConfigError(ValueError):
    """A setting that cannot be used. ``setting`` names the flag or the
    variable it came from (``--port``, ``DUETIME_PORT``, ``--tls-key``)."""

    def __init__(self, setting: str, message: str):
        super().__init__(f"{setting}: {message}")
        self.setting = setting
        self.message = message


# ---------------------------------------------------------------------------
# the bearer-token file (--auth-tokens), read here and by duetime.auth.TokenSet

MAX_TOKEN = 4096
"""Longest bearer token accepted, in characters."""
_TOKEN = re.compile(r"[A-Za-z0-9._~+/-]+=*")
SCOPES = ("compute", "read", "impact", "admin")
"""What a token may be allowed to do (``scopes=``): compute (and record)
answers, read records back, analyze the impact of a calendar change, and
the administrative calls (server reflection). See docs/operations.md for
the scope of every RPC."""
ATTRIBUTES = ("namespaces", "scopes", "default")
"""The attributes a token line may give after its token, each at most once."""
_LINE_FORMAT = ("a bearer token (1-{max} characters of A-Z a-z 0-9 - . _ ~ + /, then = "
                "padding), optionally followed by namespaces=NS[,NS...], scopes=SCOPE[,SCOPE...] "
                "and default=NS, separated by spaces")


class TokenError(ConfigError):
    """A token file that cannot be used (a :class:`ConfigError` on ``--auth-tokens``)."""

    def __init__(self, message: str):
        super().__init__("--auth-tokens", message)


@dataclass(frozen=True)
class TokenEntry:
    """One token of the token file, as kept: its :func:`token_digest`
    (never the token), the ``line`` it is on, the ``namespaces`` it is bound
    to (None: every namespace), its ``scopes`` (a subset of :data:`SCOPES`)
    and its ``default`` namespace (the one a call naming none is made in;
    ``""``: the default namespace)."""

    digest: bytes
    line: int
    namespaces: frozenset[str] | None = None
    scopes: frozenset[str] = frozenset(SCOPES)
    default: str = ""


def token_digest(token: str) -> bytes:
    """The SHA-256 digest ``token`` is kept and compared by (never the token itself)."""
    return hashlib.sha256(token.encode("utf-8")).digest()


def parse_token_line(line: str, number: int, path: Path | str = "") -> TokenEntry | None:
    """The :class:`TokenEntry` of one line of a token file (``number``: its
    line number), None for a blank line or a ``#`` comment. The line is
    ``TOKEN [namespaces=NS,...] [scopes=SCOPE,...] [default=NS]``; a line of
    a token alone is bound to every namespace and every scope. Raises
    TokenError naming ``path``, the line number and what is wrong, never
    showing the token (see docs/operations.md, "Tokens and tenants")."""
    words = line.split()
    if not words or words[0].startswith("#"):
        return None
    where = f"{path} line {number}" if path else f"line {number}"
    token, attributes = words[0], words[1:]
    if len(token) > MAX_TOKEN or not _TOKEN.fullmatch(token):
        raise TokenError(f"{where} is not a bearer token (1-{MAX_TOKEN} characters of "
                         "A-Z a-z 0-9 - . _ ~ + /, then = padding)")
    given: dict[str, str] = {}
    for position, word in enumerate(attributes, start=2):
        name, equals, value = word.partition("=")
        if not equals or name not in ATTRIBUTES:
            raise TokenError(f"{where} is not a bearer token followed by attributes: its word "
                             f"{position} is not namespaces=…, scopes=… or default=… (a line "
                             "is " + _LINE_FORMAT.format(max=MAX_TOKEN) + ")")
        if name in given:
            raise TokenError(f"{where} gives {name}= twice; give it once")
        given[name] = value
    namespaces = None
    if "namespaces" in given:
        namespaces = frozenset(_list_of(given["namespaces"], "namespaces", where,
                                        _check_token_namespace))
    scopes = frozenset(SCOPES)
    if "scopes" in given:
        scopes = frozenset(_list_of(given["scopes"], "scopes", where, _check_scope))
    default = ""
    if "default" in given:
        default = _check_token_namespace(given["default"], "default", where)
        if namespaces is not None and default not in namespaces:
            raise TokenError(f"{where}: default={default} is not one of its namespaces= "
                             f"({','.join(sorted(namespaces))}); name one of them")
    elif namespaces is not None:
        if len(namespaces) > 1:
            raise TokenError(f"{where} binds {len(namespaces)} namespaces but names no "
                             "default=: give default=NS, the namespace of its calls that name "
                             "none")
        (default,) = namespaces
    return TokenEntry(token_digest(token), number, namespaces, scopes, default)


def _list_of(text: str, name: str, where: str, check) -> list[str]:
    """The comma-separated items of attribute ``name``, each through ``check``."""
    items = text.split(",")
    if not text or "" in items:
        raise TokenError(f"{where}: {name}= has an empty item; give {name}=A,B with no "
                         "empty item")
    return [check(item, name, where) for item in items]


def _check_token_namespace(text: str, name: str, where: str) -> str:
    """``text`` if it names a namespace (:func:`duetime.app.check_namespace`,
    not the default ``""``), else TokenError on attribute ``name``."""
    try:
        valid = bool(text) and check_namespace(text) == text
    except InvalidArgument:
        valid = False
    if not valid:
        shown = repr(text) if len(text) <= 80 else f"{len(text)} characters"
        raise TokenError(f"{where}: {name}= {shown} is not a namespace: 1 to 64 characters of "
                         "A-Z a-z 0-9 . _ -")
    return text


def _check_scope(text: str, name: str, where: str) -> str:
    """``text`` if it is one of :data:`SCOPES`, else TokenError on attribute ``name``."""
    if text not in SCOPES:
        shown = repr(text) if len(text) <= 40 else f"{len(text)} characters"
        raise TokenError(f"{where}: {name}= {shown} is not a scope; the scopes are "
                         f"{', '.join(SCOPES)}")
    return text


def load_tokens(path: Path, allow_empty: bool = False) -> tuple[TokenEntry, ...]:
    """The tokens in ``path``, one a line (blank lines and ``#`` comments
    skipped, surrounding spaces ignored), each as its :class:`TokenEntry`
    (see :func:`parse_token_line`). Raises TokenError: the file cannot be
    read, holds a line that is not a token line (the line is named, never
    shown), the same token on two lines, or no token at all (unless
    ``allow_empty``: a reload of an emptied file revokes every token)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        why = getattr(exc, "strerror", None) or str(exc)
        raise TokenError(f"cannot read {path}: {why}") from None
    entries: list[TokenEntry] = []
    seen: dict[bytes, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        entry = parse_token_line(line, number, path)
        if entry is None:
            continue
        if entry.digest in seen:
            raise TokenError(f"{path} line {number} repeats the token of line "
                             f"{seen[entry.digest]}; give each token one line")
        seen[entry.digest] = number
        entries.append(entry)
    if not entries and not allow_empty:
        raise TokenError(f"{path} holds no token (one token a line; blank lines and # comments "
                         "are skipped)")
    return tuple(entries)


# ---------------------------------------------------------------------------
# value parsers: text -> value, or ValueError saying what is wrong


def parse_port(text: str) -> int:
    """A TCP port, 0..65535 (0: any free port)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 65535:
        raise ValueError(f"{text!r} is not a TCP port (0..65535; 0 picks a free one)")
    return value


def parse_optional_port(text: str) -> int:
    """A TCP port for an optional listener, 1..65535, or 0 (off)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 65535:
        raise ValueError(f"{text!r} is not a TCP port (1..65535, or 0 for off)")
    return value


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value):
        raise ValueError(f"{text!r} is not a finite number of seconds")
    return value


def parse_positive_seconds(text: str) -> float:
    """Seconds, more than 0."""
    value = _number(text)
    if not value > 0:
        raise ValueError(f"{text!r} is not a positive number of seconds")
    return value


def parse_seconds(text: str) -> float:
    """Seconds, 0 or more."""
    value = _number(text)
    if value < 0:
        raise ValueError(f"{text!r} is not a number of seconds ≥ 0")
    return value


def _whole_number(text: str, low: int, what: str, high: int | None = None) -> int:
    """``text`` as a whole number from ``low`` (to ``high``); ValueError
    saying it is not ``what`` otherwise."""
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or value < low or (high is not None and value > high):
        raise ValueError(f"{text!r} is not {what}")
    return value


def parse_cache_size(text: str) -> int:
    """A cache size, a whole number ≥ 0."""
    return _whole_number(text, 0, "a cache size (a whole number ≥ 0)")


def parse_message_bytes(text: str) -> int:
    """A message size in bytes, 1 .. 2^31-1 (gRPC's own limit)."""
    return _whole_number(text, 1, f"a message size (bytes, 1..{MAX_GRPC_LENGTH})", MAX_GRPC_LENGTH)


def parse_calls(text: str) -> int:
    """A number of calls, a whole number ≥ 0 (0: no bound)."""
    return _whole_number(text, 0, "a number of calls (a whole number ≥ 0; 0: no bound)")


def parse_items(text: str) -> int:
    """A number of items, 1 or more."""
    return _whole_number(text, 1, "a number of items (a whole number ≥ 1)")


def parse_weight(text: str) -> int:
    """A weight (of a message's calendars), 1 or more."""
    return _whole_number(text, 1, "a weight (a whole number ≥ 1)")


def parse_workers(text: str) -> int:
    """A number of worker processes, 1..:data:`MAX_WORKERS`."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= MAX_WORKERS:
        raise ValueError(f"{text!r} is not a number of worker processes (1..{MAX_WORKERS}; "
                         "about one per CPU core, 1 serves from this process alone)")
    return value


_UNITS = {"": 1, "B": 1, "KB": 1000, "MB": 1000**2, "GB": 1000**3,
          "KIB": 1 << 10, "MIB": 1 << 20, "GIB": 1 << 30, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
_SIZE = re.compile(r"\s*(\d+)\s*([A-Za-z]*)\s*")


def parse_bytes(text: str) -> int:
    """A size in bytes, 1 MiB or more: a whole number, optionally followed by
    a unit (``B``, ``KiB``/``K``, ``MiB``/``M``, ``GiB``/``G``: powers of
    1024; ``KB``, ``MB``, ``GB``: powers of 1000; case ignored)."""
    match = _SIZE.fullmatch(text)
    unit = _UNITS.get(match.group(2).upper()) if match else None
    if unit is None:
        raise ValueError(f"{text!r} is not a size (a whole number of bytes, or with a unit: "
                         "256MiB, 1GiB, 500MB)")
    value = int(match.group(1)) * unit
    if value < 1 << 20:
        raise ValueError(f"{text!r} is less than 1MiB; give at least 1MiB")
    return value


def format_bytes(value: int) -> str:
    """``value`` bytes as ``parse_bytes`` reads it back: ``256MiB``, ``1GiB``,
    ``1500000B``."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if value and value % size == 0:
            return f"{value // size}{unit}"
    return f"{value}B"


def parse_origin(text: str) -> str:
    """A web origin, ``scheme://host[:port]`` (http or https), as browsers
    send it in the ``Origin`` header: lower-cased, a default port dropped."""
    origin = canonical_origin(text)
    if origin is None:
        raise ValueError(f"{text!r} is not an origin; give scheme://host[:port], e.g. "
                         "https://tools.example.com or http://localhost:3000")
    return origin


def canonical_origin(text: str) -> str | None:
    """``text`` as a canonical origin (``http://host`` or ``https://host:port``,
    lower-case, without the scheme's default port), or None if it is not one."""
    try:
        parts = urlsplit(text.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname or \
            parts.path or parts.query or parts.fragment or parts.username is not None:
        return None
    scheme, host = parts.scheme.lower(), parts.hostname.lower()
    shown = f"[{host}]" if ":" in host else host
    if port is None or port == {"http": 80, "https": 443}[scheme]:
        return f"{scheme}://{shown}"
    return f"{scheme}://{shown}:{port}"


def parse_host_name(text: str) -> str:
    """A host name a request's ``Host`` header may carry (without the port):
    lower-cased; ``*.example.com`` allows every name under example.com."""
    name = text.strip().lower()
    bare = name[2:] if name.startswith("*.") else name
    if not re.fullmatch(r"[a-z0-9._-]+|\[[0-9a-f:.]+\]", bare or "-") or bare.startswith("."):
        raise ValueError(f"{text!r} is not a host name; give a name or address without the "
                         "port, e.g. duetime.internal, *.example.com or 10.0.0.5")
    return name


def parse_log_format(text: str) -> str:
    """``text`` or ``json``."""
    if text not in LOG_FORMATS:
        raise ValueError(f"{text!r} is not a log format (text or json)")
    return text


def parse_host(text: str) -> str:
    """A host name or address to listen on (not empty)."""
    if not text.strip():
        raise ValueError("is empty; give a host name or an address such as 127.0.0.1 or 0.0.0.0")
    return text.strip()


def parse_db(text: str) -> str:
    """A ``--db`` value: a SQLite path or a PostgreSQL URL; ValueError for a
    libpq key=value string (:func:`duetime.ledger.postgres_url`)."""
    postgres_url(text)
    return text


def parse_path(text: str) -> Path:
    if not text:
        raise ValueError("is empty; give a file path")
    return Path(text)


def argument_type(parse: Callable[[str], object]) -> Callable[[str], object]:
    """``parse`` as an argparse ``type=``: a ValueError becomes a usage error
    (``argument --port: '99999' is not a TCP port …``, exit code 2)."""

    def convert(text: str):
        try:
            return parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = parse.__name__.removeprefix("parse_")
    return convert


# ---------------------------------------------------------------------------
# the settings


@dataclass(frozen=True)
class Setting:
    """One setting: its :class:`ServerConfig` field (also the argparse
    ``dest``), flag, variable, parser and help text."""

    name: str
    flag: str
    env: str
    parse: Callable[[str], object]
    metavar: str
    help: str
    repeated: bool = False
    """The flag may be given again, each time adding a value; its variable
    lists the values separated by commas or spaces."""


SETTINGS: tuple[Setting, ...] = (
    Setting("host", "--host", "DUETIME_HOST", parse_host, "HOST",
            f"address to listen on (default {DEFAULT_HOST}; 0.0.0.0 or :: for every interface)"),
    Setting("port", "--port", "DUETIME_PORT", parse_port, "PORT",
            f"gRPC TCP port, 0..65535 (default {DEFAULT_PORT}; 0 picks a free port)"),
    Setting("db", "--db", "DUETIME_DB", parse_db, "PATH_OR_URL",
            "the ledger: a SQLite file path or a postgresql:// URL (default "
            "~/.local/share/duetime/ledger.db)"),
    Setting("calendars", "--calendars", "DUETIME_CALENDARS", parse_path, "DIR",
            "calendar bundles and policies to serve (default ./calendars if it exists, else "
            "none); SIGHUP reloads them"),
    Setting("calendar_cache", "--calendar-cache", "DUETIME_CALENDAR_CACHE", parse_cache_size, "N",
            "inline calendars kept built, least recently used dropped first (default 1024; "
            "0 keeps none)"),
    Setting("memory_budget", "--memory-budget", "DUETIME_MEMORY_BUDGET", parse_bytes, "SIZE",
            f"memory the server may take beyond its idle size: the built inline calendars hold "
            f"at most a third (least recently used dropped first), the request bytes in flight "
            f"another third (default {format_bytes(DEFAULT_MEMORY_BUDGET)}; e.g. 64MiB, 1GiB)"),
    Setting("watch", "--watch", "DUETIME_WATCH", parse_positive_seconds, "SECONDS",
            "also reload the calendars when a compiled versions.txt changes, checking every "
            "SECONDS (default: only on SIGHUP)"),
    Setting("tls_cert", "--tls-cert", "DUETIME_TLS_CERT", parse_path, "FILE",
            "serve TLS with this PEM certificate chain (needs --tls-key)"),
    Setting("tls_key", "--tls-key", "DUETIME_TLS_KEY", parse_path, "FILE",
            "the PEM private key of --tls-cert"),
    Setting("tls_client_ca", "--tls-client-ca", "DUETIME_TLS_CLIENT_CA", parse_path, "FILE",
            "mutual TLS: require a client certificate issued by these PEM CA certificates"),
    Setting("auth_tokens", "--auth-tokens", "DUETIME_AUTH_TOKENS", parse_path, "FILE",
            "require 'authorization: Bearer TOKEN' metadata, TOKEN one of the tokens of FILE, "
            "one a line, each optionally followed by namespaces=NS,... scopes=SCOPE,... "
            "default=NS (the health service stays open); SIGHUP rereads it"),
    Setting("metrics_port", "--metrics-port", "DUETIME_METRICS_PORT", parse_optional_port, "PORT",
            "serve Prometheus metrics over HTTP on this port at /metrics (default 0: off)"),
    Setting("metrics_host", "--metrics-host", "DUETIME_METRICS_HOST", parse_host, "HOST",
            "address of the metrics listener (default: --host)"),
    Setting("log_format", "--log-format", "DUETIME_LOG_FORMAT", parse_log_format, "FORMAT",
            "text (default) or json: one JSON object a line"),
    Setting("grace", "--grace", "DUETIME_GRACE", parse_seconds, "SECONDS",
            f"on SIGINT/SIGTERM, how long calls in flight may finish (default {DEFAULT_GRACE:g})"),
    Setting("max_message_bytes", "--max-message-bytes", "DUETIME_MAX_MESSAGE_BYTES",
            parse_message_bytes, "BYTES",
            f"largest request message; larger is RESOURCE_EXHAUSTED (default "
            f"{DEFAULT_MAX_MESSAGE_BYTES}, 16 MiB, gRPC and HTTP alike)"),
    Setting("max_batch_items", "--max-batch-items", "DUETIME_MAX_BATCH_ITEMS", parse_items, "N",
            f"most items of one BatchComputeDueTimes request or stream message; more is "
            f"INVALID_ARGUMENT (default {DEFAULT_MAX_BATCH_ITEMS})"),
    Setting("max_batch_calendar_weight", "--max-batch-calendar-weight", "DUETIME_MAX_BATCH_CALENDAR_WEIGHT",
            parse_weight, "N",
            "most weight of the distinct inline calendars of one BatchComputeDueTimes request or "
            "stream message (docs/operations.md, Limits); more is INVALID_ARGUMENT (default "
            f"{DEFAULT_MAX_BATCH_CALENDAR_WEIGHT})"),
    Setting("call_budget", "--call-budget", "DUETIME_CALL_BUDGET", parse_seconds, "SECONDS",
            f"server time one call (one stream chunk) may take; longer is DEADLINE_EXCEEDED "
            f"(default {DEFAULT_CALL_BUDGET:g}; 0: no budget)"),
    Setting("http_port", "--http-port", "DUETIME_HTTP_PORT", parse_optional_port, "PORT",
            "serve the JSON-over-HTTP API and its playground on this port (default 0: off)"),
    Setting("workers", "--workers", "DUETIME_WORKERS", parse_workers, "N",
            f"serve from N worker processes sharing the gRPC (and HTTP) port, 1..{MAX_WORKERS} "
            "(default 1: this process alone); worker i serves metrics on --metrics-port + i - 1"),
    Setting("http_allow_origin", "--http-allow-origin", "DUETIME_HTTP_ALLOW_ORIGIN",
            parse_origin, "ORIGIN",
            "also answer browser requests from this origin (scheme://host[:port]), with CORS "
            "headers; repeat for more (default: the HTTP port's own origin only)", True),
    Setting("http_allow_host", "--http-allow-host", "DUETIME_HTTP_ALLOW_HOST", parse_host_name,
            "NAME", "also accept this name in the Host header of HTTP requests (default on a "
            "loopback --host: localhost, 127.0.0.1 and [::1] only); repeat for more", True),
    Setting("tenant_calls", "--tenant-calls", "DUETIME_TENANT_CALLS", parse_calls, "N",
            f"with --auth-tokens, calls one tenant (token) may have in flight at once over "
            f"gRPC and HTTP; more is RESOURCE_EXHAUSTED (HTTP 429) (default "
            f"{DEFAULT_TENANT_CALLS}; 0: no bound)"),
    Setting("body_timeout", "--body-timeout", "DUETIME_BODY_TIMEOUT", parse_positive_seconds,
            "SECONDS", f"time an HTTP client has to send a request's head, and then its whole "
                       f"body; slower is answered 408 and its connection closed (default "
                       f"{DEFAULT_BODY_TIMEOUT:g})"),
)
BY_NAME = {s.name: s for s in SETTINGS}


@dataclass(frozen=True)
class ServerConfig:
    """The effective configuration of ``duetime serve`` (see :data:`SETTINGS`).

    ``db`` None: :func:`duetime.ledger.open_ledger`'s default file;
    ``calendars`` None: no bundles; ``calendar_cache`` None: the cache keeps
    its size (1024); ``watch`` None: reload on SIGHUP only; ``metrics_port``
    and ``http_port`` 0: off; ``metrics_host`` None: ``host``;
    ``call_budget`` 0: no budget; ``workers`` 1: served by this process
    alone (more: pre-forked worker processes, see :mod:`duetime.api.workers`).
    """

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    db: str | None = None
    calendars: Path | None = None
    calendar_cache: int | None = None
    watch: float | None = None
    tls_cert: Path | None = None
    tls_key: Path | None = None
    tls_client_ca: Path | None = None
    auth_tokens: Path | None = None
    metrics_port: int = 0
    metrics_host: str | None = None
    log_format: str = "text"
    grace: float = DEFAULT_GRACE
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
    max_batch_items: int = DEFAULT_MAX_BATCH_ITEMS
    max_batch_calendar_weight: int = DEFAULT_MAX_BATCH_CALENDAR_WEIGHT
    call_budget: float = DEFAULT_CALL_BUDGET
    http_port: int = 0
    workers: int = 1
    memory_budget: int = DEFAULT_MEMORY_BUDGET
    http_allow_origin: tuple[str, ...] = ()
    http_allow_host: tuple[str, ...] = ()
    tenant_calls: int = DEFAULT_TENANT_CALLS
    body_timeout: float = DEFAULT_BODY_TIMEOUT

    @property
    def tls(self) -> bool:
        return self.tls_cert is not None

    @property
    def metrics_address(self) -> str:
        """Where metrics listen: ``metrics_host`` or else ``host``."""
        return self.metrics_host or self.host

    def load_tls(self) -> TlsFiles | None:
        """The PEM contents of the TLS files (None without TLS), checked: the
        key matches the certificate, the client CA parses. ConfigError else."""
        if self.tls_cert is None:
            return None
        assert self.tls_key is not None  # resolve() checks it
        cert = _read(self.tls_cert, "--tls-cert")
        key = _read(self.tls_key, "--tls-key")
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        try:
            context.load_cert_chain(self.tls_cert, self.tls_key)
        except (ssl.SSLError, ValueError) as exc:
            raise ConfigError("--tls-key", f"{self.tls_key} is not the PEM private key of the "
                                           f"certificate in {self.tls_cert} ({_ssl_reason(exc)})"
                              ) from None
        client_ca = None
        if self.tls_client_ca is not None:
            client_ca = _read(self.tls_client_ca, "--tls-client-ca")
            try:
                context.load_verify_locations(cafile=str(self.tls_client_ca))
            except (ssl.SSLError, ValueError) as exc:
                raise ConfigError("--tls-client-ca", f"{self.tls_client_ca} holds no PEM CA "
                                                     f"certificate ({_ssl_reason(exc)})") from None
        return TlsFiles(cert, key, client_ca)

    def describe(self) -> dict[str, object]:
        """The effective configuration for the start-up log: every setting,
        file paths named, no secret (the database URL without user, password
        or parameters; token files named, their tokens never read here)."""
        shown: dict[str, object] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "db":
                value = redact_db(value)
            elif isinstance(value, Path):
                value = str(value)
            elif isinstance(value, tuple):  # a repeated flag: its values, or None (none)
                value = ",".join(value) or None
            shown[f.name] = value
        shown["metrics_host"] = self.metrics_address
        return shown


@dataclass(frozen=True)
class TlsFiles:
    """PEM bytes: the server's certificate chain and key, and the client CA
    (mutual TLS) or None."""

    cert: bytes
    key: bytes
    client_ca: bytes | None


def _ssl_reason(exc: Exception) -> str:
    return getattr(exc, "reason", None) or str(exc) or type(exc).__name__


def _read(path: Path, setting: str) -> bytes:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(setting, f"cannot read {path}: {exc.strerror or exc}") from None
    if b"-----BEGIN " not in data:
        raise ConfigError(setting, f"{path} is not a PEM file (no -----BEGIN line)")
    return data


def redact_db(db: str | None) -> str | None:
    """A ``--db`` value safe to log: a PostgreSQL URL as
    ``postgresql://host:port/dbname`` (no user, password or parameters; see
    :func:`duetime.ledger.postgres_label`), a file path as it is."""
    try:
        url = postgres_url(db) if db else None
    except ValueError:
        return "(a key=value connection string)"
    if url is None:
        return db
    try:
        parts = urlsplit(url)
        host = unquote(parts.hostname or "")
        port = parts.port
    except ValueError:
        return "postgresql://(unparsable URL)"
    query = dict(parse_qsl(parts.query))
    if not host and query.get("host"):  # postgresql:///db?host=/run/postgresql
        host = query["host"]
    return postgres_label(host or "localhost", port or query.get("port"),
                          unquote(parts.path.lstrip("/")))


def resolve(args: argparse.Namespace | Mapping[str, object] | None = None,
            environ: Mapping[str, str] | None = None) -> ServerConfig:
    """The effective configuration: for each setting, the flag's value when
    given (already parsed by argparse; None when not given), else the
    environment variable's (parsed here), else the default; then checked as a
    whole (:func:`check`). Raises ConfigError."""
    given = vars(args) if isinstance(args, argparse.Namespace) else dict(args or {})
    environ = os.environ if environ is None else environ
    values: dict[str, object] = {}
    for setting in SETTINGS:
        value = given.get(setting.name)
        if value is None and environ.get(setting.env, "") != "":
            try:
                if setting.repeated:
                    value = [setting.parse(item)
                             for item in re.split(r"[,\s]+", environ[setting.env]) if item]
                else:
                    value = setting.parse(environ[setting.env])
            except ValueError as exc:
                raise ConfigError(setting.env, str(exc)) from None
        if setting.repeated and value is not None:
            value = tuple(dict.fromkeys(value))
        if value is not None:
            values[setting.name] = value
    if values.get("calendars") is None:
        values["calendars"] = default_dir()  # ./calendars when it exists
    config = ServerConfig(**values)  # type: ignore[arg-type]
    check(config)
    return config


def _flag_or_env(name: str) -> str:
    setting = BY_NAME[name]
    return f"{setting.flag} ({setting.env})"


def check(config: ServerConfig) -> None:
    """Check the settings together; ConfigError naming the flag."""
    if config.tls_key is not None and config.tls_cert is None:
        raise ConfigError("--tls-key", "is given without --tls-cert; TLS needs both the "
                                       "certificate and its key")
    if config.tls_cert is not None and config.tls_key is None:
        raise ConfigError("--tls-cert", "is given without --tls-key; TLS needs both the "
                                        "certificate and its key")
    if config.tls_client_ca is not None and config.tls_cert is None:
        raise ConfigError("--tls-client-ca", "mutual TLS needs the server's own certificate "
                                             "too: give --tls-cert and --tls-key")
    config.load_tls()
    if config.auth_tokens is not None:
        load_tokens(config.auth_tokens)  # reads and checks the file
    # (setting, what the port is, host, port); a worker past the first serves
    # metrics on --metrics-port + its number - 1
    listeners = [("port", _flag_or_env("port") + " port", config.host, config.port)]
    if config.metrics_port:
        last = config.metrics_port + config.workers - 1
        if last > 65535:
            raise ConfigError("--workers", f"{config.workers} workers serve metrics on ports "
                                           f"{config.metrics_port}..{last}, past 65535: give a "
                                           "lower --metrics-port or fewer --workers")
        listeners += [("metrics_port", _flag_or_env("metrics_port") + " port" if i == 0 else
                       f"metrics port of worker {i + 1} ({_flag_or_env('metrics_port')} + {i})",
                       config.metrics_address, config.metrics_port + i)
                      for i in range(config.workers)]
    if config.http_port:
        listeners.append(("http_port", _flag_or_env("http_port") + " port", config.host,
                          config.http_port))
    for i, (name, _, host, port) in enumerate(listeners):
        for other, what, other_host, other_port in listeners[:i]:
            if port == other_port and port != 0 and host == other_host:
                raise ConfigError(BY_NAME[name].flag, f"port {port} is already the {what}; "
                                        "give each listener its own port")
