"""``duetime serve`` configuration (flags over DUETIME_* variables, checks,
exit code 2), token files, and ``duetime health`` against a plain server."""

from __future__ import annotations

import resource
from collections import namedtuple
from pathlib import Path

import grpc
import pytest
from duetime.auth import TokenError, TokenSet, bearer_token, load_tokens
from duetime.cli import main, parser
from duetime.config import (
    DEFAULT_CALL_BUDGET,
    DEFAULT_MAX_BATCH_ITEMS,
    DEFAULT_MAX_MESSAGE_BYTES,
    SETTINGS,
    ConfigError,
    ServerConfig,
    resolve,
)
from server_process import free_port, zagreb_request
from test_ops_security import (  # noqa: F401 - fixtures
    OTHER_TOKEN,
    TOKEN,
    duetime,
    ops_server_fixture,
    pki_fixture,
)

Metadatum = namedtuple("Metadatum", ("key", "value"))


def serve_args(*flags: str):
    return parser().parse_args(["serve", *flags])


def config_of(*flags: str, **env: str) -> ServerConfig:
    return resolve(serve_args(*flags), env)


def test_defaults():
    config = config_of()
    assert (config.host, config.port, config.db, config.log_format, config.grace) == (
        "127.0.0.1", 50051, None, "text", 5.0)
    assert (config.max_message_bytes, config.max_batch_items, config.call_budget) == (
        DEFAULT_MAX_MESSAGE_BYTES, DEFAULT_MAX_BATCH_ITEMS, DEFAULT_CALL_BUDGET)
    assert (config.metrics_port, config.metrics_address, config.http_port, config.tls) == (
        0, "127.0.0.1", 0, False)


@pytest.mark.parametrize("flag, env, flag_value, env_value, field, expected_flag, expected_env", [
    ("--host", "DUETIME_HOST", "0.0.0.0", "10.0.0.7", "host", "0.0.0.0", "10.0.0.7"),
    ("--port", "DUETIME_PORT", "6000", "7000", "port", 6000, 7000),
    ("--db", "DUETIME_DB", "/srv/a.db", "/srv/b.db", "db", "/srv/a.db", "/srv/b.db"),
    ("--calendars", "DUETIME_CALENDARS", "/srv/c1", "/srv/c2", "calendars", Path("/srv/c1"),
     Path("/srv/c2")),
    ("--calendar-cache", "DUETIME_CALENDAR_CACHE", "7", "9", "calendar_cache", 7, 9),
    ("--watch", "DUETIME_WATCH", "2.5", "10", "watch", 2.5, 10.0),
    ("--metrics-port", "DUETIME_METRICS_PORT", "9100", "9200", "metrics_port", 9100, 9200),
    ("--metrics-host", "DUETIME_METRICS_HOST", "0.0.0.0", "::1", "metrics_host", "0.0.0.0",
     "::1"),
    ("--log-format", "DUETIME_LOG_FORMAT", "json", "text", "log_format", "json", "text"),
    ("--grace", "DUETIME_GRACE", "0.5", "12", "grace", 0.5, 12.0),
    ("--max-message-bytes", "DUETIME_MAX_MESSAGE_BYTES", "1000", "2000", "max_message_bytes",
     1000, 2000),
    ("--max-batch-items", "DUETIME_MAX_BATCH_ITEMS", "10", "20", "max_batch_items", 10, 20),
    ("--max-batch-calendar-weight", "DUETIME_MAX_BATCH_CALENDAR_WEIGHT", "500", "700",
     "max_batch_calendar_weight", 500, 700),
    ("--call-budget", "DUETIME_CALL_BUDGET", "0", "1.5", "call_budget", 0.0, 1.5),
])
def test_a_flag_wins_over_its_variable(flag, env, flag_value, env_value, field, expected_flag,
                                       expected_env):
    assert getattr(config_of(flag, flag_value, **{env: env_value}), field) == expected_flag
    assert getattr(config_of(**{env: env_value}), field) == expected_env


def test_every_setting_has_the_agreed_flag_and_variable():
    assert [(s.flag, s.env) for s in SETTINGS] == [
        (f"--{s.name.replace('_', '-')}", f"DUETIME_{s.name.upper()}") for s in SETTINGS]
    assert {s.name for s in SETTINGS} == {
        "host", "port", "db", "calendars", "calendar_cache", "watch", "tls_cert", "tls_key",
        "tls_client_ca", "auth_tokens", "metrics_port", "metrics_host", "log_format", "grace",
        "max_message_bytes", "max_batch_items", "max_batch_calendar_weight", "call_budget",
        "http_port", "workers",
        "memory_budget", "http_allow_origin", "http_allow_host", "tenant_calls", "body_timeout"}


@pytest.mark.parametrize("env, value, message", [
    ("DUETIME_PORT", "abc", "'abc' is not a TCP port (0..65535; 0 picks a free one)"),
    ("DUETIME_PORT", "70000", "'70000' is not a TCP port (0..65535; 0 picks a free one)"),
    ("DUETIME_METRICS_PORT", "-1", "'-1' is not a TCP port (1..65535, or 0 for off)"),
    ("DUETIME_LOG_FORMAT", "xml", "'xml' is not a log format (text or json)"),
    ("DUETIME_GRACE", "-1", "'-1' is not a number of seconds ≥ 0"),
    ("DUETIME_WATCH", "0", "'0' is not a positive number of seconds"),
    ("DUETIME_CALL_BUDGET", "nan", "'nan' is not a finite number of seconds"),
    ("DUETIME_MAX_BATCH_ITEMS", "0", "'0' is not a number of items (a whole number ≥ 1)"),
    ("DUETIME_MAX_BATCH_CALENDAR_WEIGHT", "x", "'x' is not a weight (a whole number ≥ 1)"),
    ("DUETIME_MAX_MESSAGE_BYTES", "3000000000",
     "'3000000000' is not a message size (bytes, 1..2147483647)"),
    ("DUETIME_CALENDAR_CACHE", "-5", "'-5' is not a cache size (a whole number ≥ 0)"),
    ("DUETIME_HOST", " ", "is empty; give a host name or an address such as 127.0.0.1 or "
                          "0.0.0.0"),
])
def test_a_bad_variable_is_a_usage_error_naming_it(env, value, message, monkeypatch, capsys):
    with pytest.raises(ConfigError) as caught:
        config_of(**{env: value})
    assert (caught.value.setting, caught.value.message) == (env, message)
    monkeypatch.setenv(env, value)
    assert main(["serve"]) == 2
    assert capsys.readouterr().err == f"error: {env}: {message}\n"


@pytest.mark.parametrize("flag, value, message", [
    ("--port", "65536", "'65536' is not a TCP port (0..65535; 0 picks a free one)"),
    ("--grace", "soon", "'soon' is not a number of seconds"),
    ("--log-format", "yaml", "'yaml' is not a log format (text or json)"),
])
def test_a_bad_flag_is_an_argparse_usage_error(flag, value, message, capsys):
    with pytest.raises(SystemExit) as caught:
        main(["serve", flag, value])
    assert caught.value.code == 2
    assert f"argument {flag}: {message}" in capsys.readouterr().err


def _usage_error(capsys, *flags: str) -> str:
    assert main(["serve", "--port", "0", *flags]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    return err.strip()


def test_tls_settings_are_checked_together(pki, tmp_path, capsys):
    assert _usage_error(capsys, "--tls-key", str(pki.server_key)) == (
        "error: --tls-key: is given without --tls-cert; TLS needs both the certificate and its "
        "key")
    assert _usage_error(capsys, "--tls-cert", str(pki.server)) == (
        "error: --tls-cert: is given without --tls-key; TLS needs both the certificate and its "
        "key")
    assert _usage_error(capsys, "--tls-client-ca", str(pki.ca)) == (
        "error: --tls-client-ca: mutual TLS needs the server's own certificate too: give "
        "--tls-cert and --tls-key")
    missing = tmp_path / "nowhere.pem"
    assert _usage_error(capsys, "--tls-cert", str(missing), "--tls-key", str(pki.server_key)) \
        == f"error: --tls-cert: cannot read {missing}: No such file or directory"
    assert _usage_error(capsys, "--tls-cert", str(pki.server), "--tls-key",
                        str(pki.client_key)).startswith(
        f"error: --tls-key: {pki.client_key} is not the PEM private key of the certificate in "
        f"{pki.server} (")
    not_pem = tmp_path / "ca.txt"
    not_pem.write_text("hello\n")
    assert _usage_error(capsys, "--tls-cert", str(pki.server), "--tls-key", str(pki.server_key),
                        "--tls-client-ca", str(not_pem)) == (
        f"error: --tls-client-ca: {not_pem} is not a PEM file (no -----BEGIN line)")
    config = config_of("--tls-cert", str(pki.server), "--tls-key", str(pki.server_key),
                       DUETIME_TLS_CLIENT_CA=str(pki.ca))
    files = config.load_tls()
    assert files.cert == pki.server.read_bytes() and files.client_ca == pki.ca.read_bytes()


def test_token_files(tmp_path, capsys):
    missing = tmp_path / "missing"
    assert _usage_error(capsys, "--auth-tokens", str(missing)) == (
        f"error: --auth-tokens: cannot read {missing}: No such file or directory")
    empty = tmp_path / "empty"
    empty.write_text("# nobody yet\n\n")
    assert _usage_error(capsys, "--auth-tokens", str(empty)) == (
        f"error: --auth-tokens: {empty} holds no token (one token a line; blank lines and # "
        "comments are skipped)")
    bad = tmp_path / "bad"
    bad.write_text(f"{TOKEN}\nsecret with spaces\n")
    message = _usage_error(capsys, "--auth-tokens", str(bad))
    assert message.startswith(f"error: --auth-tokens: {bad} line 2 is not a bearer token")
    assert "secret" not in message
    good = tmp_path / "good"
    good.write_text(f"# callers\n  {TOKEN}\n{OTHER_TOKEN}\n")
    assert len(load_tokens(good)) == 2
    tokens = TokenSet(good)
    assert tokens.accepts(TOKEN) and tokens.accepts(OTHER_TOKEN)
    assert not any(tokens.accepts(t) for t in ("", TOKEN[:-1], TOKEN + "=", TOKEN.upper()))
    good.write_text("rotated-token\n")
    tokens.reload()
    assert tokens.accepts("rotated-token") and not tokens.accepts(TOKEN)
    good.write_text("")
    tokens.reload()  # an emptied file revokes every token
    assert len(tokens) == 0 and not tokens.accepts("rotated-token")
    good.write_text("rotated-token\nbad token\n")
    with pytest.raises(TokenError):
        tokens.reload()
    assert len(tokens) == 0  # a refused file keeps the tokens in use


@pytest.mark.parametrize("values, expected", [
    ((), None),
    ((f"Bearer {TOKEN}",), TOKEN),
    ((f"bearer   {TOKEN} ",), TOKEN),
    ((f"Basic {TOKEN}",), ""),
    ((TOKEN,), ""),
    ((f"Bearer {TOKEN}", f"Bearer {OTHER_TOKEN}"), ""),
])
def test_bearer_token_of_the_metadata(values, expected):
    metadata = [Metadatum("x-duetime-namespace", "a")] + [
        Metadatum("authorization", v) for v in values]
    assert bearer_token(metadata) == expected


def test_listeners_need_their_own_ports(capsys):
    assert _usage_error(capsys, "--port", "7000", "--metrics-port", "7000") == (
        "error: --metrics-port: port 7000 is already the --port (DUETIME_PORT) port; give each "
        "listener its own port")
    config = config_of("--port", "7000", "--metrics-port", "7000", "--metrics-host", "10.1.1.1")
    assert (config.metrics_address, config.metrics_port) == ("10.1.1.1", 7000)


def test_the_logged_configuration_holds_no_secret(tmp_path):
    tokens = tmp_path / "tokens"
    tokens.write_text(TOKEN + "\n")
    config = config_of("--auth-tokens", str(tokens), DUETIME_DB="postgresql://duetime:"
                       "hunter2@db.internal:5433/ledger?sslmode=require&password=hunter3")
    shown = config.describe()
    assert shown["db"] == "postgresql://db.internal:5433/ledger"
    assert shown["auth_tokens"] == str(tokens)
    text = repr(shown)
    assert "hunter" not in text and TOKEN not in text and "duetime:" not in text


def test_health_command_against_a_plain_server(ops_server):
    server = ops_server()
    healthy = duetime("health", "--server", server.address)
    assert (healthy.returncode, healthy.stdout) == (0, "SERVING\n")
    unknown = duetime("health", "--server", server.address, "--service", "no.such.Service")
    assert (unknown.returncode, unknown.stdout) == (1, "NOT_FOUND\n")
    limits = resource.prlimit(server.proc.pid, resource.RLIMIT_FSIZE)
    resource.prlimit(server.proc.pid, resource.RLIMIT_FSIZE, (0, limits[1]))
    try:  # the ledger cannot be written: the failed call switches health at once
        with pytest.raises(grpc.RpcError):
            server.stub.ComputeDueTime(zagreb_request(), timeout=10)
        down = duetime("health", "--server", server.address)
    finally:
        resource.prlimit(server.proc.pid, resource.RLIMIT_FSIZE, limits)
    assert (down.returncode, down.stdout) == (1, "NOT_SERVING\n")
    closed = duetime("health", "--server", f"127.0.0.1:{free_port()}", "--timeout", "2")
    assert closed.returncode == 1 and closed.stdout.startswith(("UNAVAILABLE", "DEADLINE_EXCEEDED"))
    assert len(closed.stdout.splitlines()) == 1


def test_the_logged_configuration_resolves_defaults(tmp_path, monkeypatch):
    """The start-up line names the ledger file and cache size actually used,
    and 'off' for features not configured."""
    from duetime.api.server import effective_settings

    monkeypatch.delenv("DUETIME_CALENDAR_CACHE", raising=False)  # as a fresh process has it
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)  # no ./calendars here
    shown = effective_settings(config_of())
    assert shown["db"] == str(tmp_path / "duetime" / "ledger.db")
    assert shown["calendar_cache"] == 1024
    assert [key for key, value in shown.items() if value is None] == [
        "calendars", "watch", "tls_cert", "tls_key", "tls_client_ca", "auth_tokens",
        "metrics_port", "metrics_host", "http_port", "http_allow_origin", "http_allow_host"]
    chosen = effective_settings(config_of("--db", "/srv/a.db", "--calendar-cache", "7",
                                          "--metrics-port", "9464", "--http-port", "8080"))
    assert (chosen["db"], chosen["calendar_cache"]) == ("/srv/a.db", 7)
    assert (chosen["metrics_port"], chosen["metrics_host"], chosen["http_port"]) == (
        9464, "127.0.0.1", 8080)


@pytest.mark.parametrize("argv", [
    ["serve", "--po", "7000"],
    ["serve", "--log-f", "json"],
    ["due", "2026-11-27T16:00+01:00", "3bd", "--t", "Europe/Zagreb"],
])
def test_options_must_be_spelled_in_full(capsys, argv):
    with pytest.raises(SystemExit) as exited:
        parser().parse_args(argv)
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"usage: duetime {argv[0]} ")  # the subcommand's own usage
    assert err.endswith(f"duetime {argv[0]}: error: unrecognized arguments: "
                        f"{' '.join(argv[-2:])}\n")


@pytest.mark.parametrize("db, shown", [
    ("POSTGRESQL://duet:hunter2@db.internal/ledger", "postgresql://db.internal:5432/ledger"),
    ("Postgres://duet:hunter2@[::1]:5999/ledger?password=hunter3",
     "postgresql://[::1]:5999/ledger"),
    ("postgresql://duet:hunter2@/ledger?host=/run/postgresql",
     "postgresql://%2Frun%2Fpostgresql:5432/ledger"),
    (" postgresql://duet:hunter2@db.internal:5433/ledger\n", "postgresql://db.internal:5433/ledger"),
    ("postgresql://duet:hunter2@[::1/ledger", "postgresql://(unparsable URL)"),
    ("/srv/duetime/ledger.db", "/srv/duetime/ledger.db"),
])
def test_database_urls_are_logged_without_secrets(db, shown):
    from duetime.config import redact_db

    assert redact_db(db) == shown


@pytest.mark.parametrize("db, what", [
    ("host=127.0.0.1 password=hunter2 dbname=ledger", "a key=value connection string"),
    ("dbname=ledger user=duet password=hunter2", "a key=value connection string"),
    ("sslpassword=hunter2", "a key=value connection string"),
    ("PASSWORD=hunter2 HOST=db.internal", "a key=value connection string"),
    ("postgresql+psycopg://duet:hunter2@db.internal/ledger", "a postgresql+psycopg:// URL"),
    (" sqlite:///srv/hunter2.db", "a sqlite:// URL"),
])
def test_what_is_neither_a_url_nor_a_path_is_refused_without_repeating_it(capsys, db, what):
    """A libpq key=value string or a URL of another scheme would otherwise be
    a SQLite file name, created and logged whole, password included."""
    expected = (f"is {what}, which duetime does not read; give a "
                "postgresql://USER:PASSWORD@HOST:PORT/DBNAME URL or a SQLite file path")
    with pytest.raises(ConfigError) as refused:  # as the environment variable
        config_of(DUETIME_DB=db)
    assert str(refused.value) == f"DUETIME_DB: {expected}"
    with pytest.raises(SystemExit) as exited:  # as the flag: argparse's own usage error
        serve_args("--db", db)
    assert exited.value.code == 2
    assert main(["records", "verify", "--db", db]) == 1
    err = capsys.readouterr().err
    assert "hunter2" not in err
    assert err.count(expected) == 2, err
    assert f"error: --db {expected}" in err


def test_an_unparsable_postgresql_url_is_not_repeated(monkeypatch, capsys):
    """libpq's own parse errors quote the URL (or the password, for a bad
    percent-encoding); the error says what to check instead."""
    monkeypatch.setenv("DUETIME_DB", "postgresql://duet:hunter2@[::1/ledger")
    assert main(["records", "verify"]) == 1
    monkeypatch.setenv("DUETIME_DB", "postgresql://duet:hunter%2@127.0.0.1:1/ledger")
    assert main(["records", "verify"]) == 1
    err = capsys.readouterr().err
    assert "hunter" not in err
    assert err.count(
        "error: bad PostgreSQL URL: libpq cannot parse it (not repeated here: it may hold a "
        "password); check the brackets around an IPv6 host, and write a % in the user or "
        "password as %25") == 2, err
