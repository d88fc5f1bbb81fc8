"""TLS, mutual TLS and bearer tokens against real ``duetime serve`` processes.

Certificates are made for each test session with ``cryptography``: a CA, a
server certificate for 127.0.0.1/localhost, a client certificate from that CA
and one from another CA. Other ``test_ops_*`` modules import
:class:`OpsServer` and :func:`make_pki` from here.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from duetime.channels import ConnectionOptions, open_channel
from duetime.client import DuetimeClient
from duetime.v1 import duetime_pb2 as pb
from duetime.v1 import duetime_pb2_grpc as pb_grpc
from google.rpc.error_details_pb2 import ErrorInfo
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)
from grpc_status import rpc_status
from server_process import CALENDARS, STARTUP_TIMEOUT, ServerProcess, zagreb_request
from test_cli import ZAGREB

TOKEN = "tok-3f9a1c.PRIMARY_token~v1"
OTHER_TOKEN = "second-token/with+slash=="
HEALTH = health_pb2.HealthCheckRequest(service="duetime.v1.DueTimeService")


# ---------------------------------------------------------------------------
# certificates


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _builder(subject: str, issuer: x509.Name, public_key) -> x509.CertificateBuilder:
    now = dt.datetime.now(dt.timezone.utc)
    return (x509.CertificateBuilder().subject_name(_name(subject)).issuer_name(issuer)
            .public_key(public_key).serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(hours=1))
            .not_valid_after(now + dt.timedelta(days=2)))


@dataclass(frozen=True)
class Authority:
    key: ec.EllipticCurvePrivateKey
    cert: x509.Certificate

    @classmethod
    def create(cls, name: str) -> Authority:
        key = _key()
        cert = (_builder(name, _name(name), key.public_key())
                .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                .add_extension(x509.KeyUsage(
                    digital_signature=True, content_commitment=False, key_encipherment=False,
                    data_encipherment=False, key_agreement=False, key_cert_sign=True,
                    crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
                .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()),
                               critical=False)
                .sign(key, hashes.SHA256()))
        return cls(key, cert)

    def issue(self, name: str, *, server: bool) -> tuple[ec.EllipticCurvePrivateKey,
                                                          x509.Certificate]:
        key = _key()
        usage = ExtendedKeyUsageOID.SERVER_AUTH if server else ExtendedKeyUsageOID.CLIENT_AUTH
        builder = (_builder(name, self.cert.subject, key.public_key())
                   .add_extension(x509.BasicConstraints(ca=False, path_length=None),
                                  critical=True)
                   .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
                   .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(
                       self.key.public_key()), critical=False))
        if server:
            builder = builder.add_extension(x509.SubjectAlternativeName([
                x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                critical=False)
        return key, builder.sign(self.key, hashes.SHA256())


def _write(directory: Path, stem: str, key, cert) -> tuple[Path, Path]:
    cert_path, key_path = directory / f"{stem}.pem", directory / f"{stem}.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


@dataclass(frozen=True)
class Pki:
    """PEM files: ``ca`` (trusted), ``server``/``server_key`` (127.0.0.1,
    localhost), ``client``/``client_key`` (issued by ``ca``),
    ``stranger``/``stranger_key`` (a client certificate from another CA)."""

    ca: Path
    server: Path
    server_key: Path
    client: Path
    client_key: Path
    stranger: Path
    stranger_key: Path


def make_pki(directory: Path) -> Pki:
    ca, other = Authority.create("duetime test CA"), Authority.create("another CA")
    ca_path = directory / "ca.pem"
    ca_path.write_bytes(ca.cert.public_bytes(serialization.Encoding.PEM))
    server = _write(directory, "server", *ca.issue("127.0.0.1", server=True))
    client = _write(directory, "client", *ca.issue("workflow-worker", server=False))
    stranger = _write(directory, "stranger", *other.issue("workflow-worker", server=False))
    return Pki(ca_path, *server, *client, *stranger)


@pytest.fixture(scope="session", name="pki")
def pki_fixture(tmp_path_factory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"))


# ---------------------------------------------------------------------------
# a server process with any flags, environment and client connection


class OpsServer(ServerProcess):
    """``duetime serve --port 0`` with extra ``args`` and ``env``; its
    ``channel``/``stub`` connect as ``connection`` says; ready once its health
    service answers SERVING over that connection."""

    def __init__(self, db_path: Path, *args: str, env: dict[str, str] | None = None,
                 connection: ConnectionOptions | None = None, calendars: Path = CALENDARS):
        self._spawn(db_path, calendars, args, env)
        self.connection = connection or ConnectionOptions()
        self.channel = open_channel(self.address, self.connection)
        self.stub = pb_grpc.DueTimeServiceStub(self.channel)
        self.calendars = pb_grpc.CalendarServiceStub(self.channel)
        reply = health_pb2_grpc.HealthStub(self.channel).Check(
            HEALTH, timeout=STARTUP_TIMEOUT, wait_for_ready=True)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING


@pytest.fixture(name="ops_server")
def ops_server_fixture(tmp_path):
    """Factory: ``ops_server(*args, env=…, connection=…)``, each on its own
    ledger; every one is killed at the end of the test."""
    started: list[OpsServer] = []

    def start(*args: str, **kwargs) -> OpsServer:
        server = OpsServer(tmp_path / f"ledger{len(started)}.db", *args, **kwargs)
        started.append(server)
        return server

    yield start
    for server in started:
        server.kill()


def duetime(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "duetime", *args], capture_output=True,
                          text=True, timeout=60, env={**os.environ, **(env or {})})


def call_code(channel: grpc.Channel, metadata=(), timeout: float = 10) -> grpc.StatusCode:
    """The status code of the Zagreb ComputeDueTime over ``channel``."""
    try:
        pb_grpc.DueTimeServiceStub(channel).ComputeDueTime(zagreb_request(), timeout=timeout,
                                                           metadata=metadata)
    except grpc.RpcError as exc:
        return exc.code()
    return grpc.StatusCode.OK


# ---------------------------------------------------------------------------
# TLS


@pytest.fixture(scope="module", name="tls_server")
def tls_server_fixture(pki, tmp_path_factory):
    """TLS (no client certificate asked), configured by DUETIME_* variables."""
    server = OpsServer(tmp_path_factory.mktemp("tls") / "ledger.db",
                       env={"DUETIME_TLS_CERT": str(pki.server),
                            "DUETIME_TLS_KEY": str(pki.server_key)},
                       connection=ConnectionOptions(tls_ca=pki.ca))
    try:
        yield server
        assert server.terminate() == 0, "".join(server.stderr)
    finally:
        server.kill()


def test_tls_answers_and_plaintext_is_refused(tls_server, pki):
    assert call_code(tls_server.channel) == grpc.StatusCode.OK
    with grpc.insecure_channel(tls_server.address) as plain:
        assert call_code(plain, timeout=5) == grpc.StatusCode.UNAVAILABLE
    untrusted = open_channel(tls_server.address, ConnectionOptions(tls_ca=pki.stranger))
    with untrusted:  # the server's certificate is not from this CA
        assert call_code(untrusted, timeout=5) == grpc.StatusCode.UNAVAILABLE
    assert "TLS on: certificate " + str(pki.server) in "".join(tls_server.stderr)


def test_cli_and_typed_client_over_tls(tls_server, pki):
    result = duetime(*ZAGREB, "--server", tls_server.address, "--tls-ca", str(pki.ca))
    assert result.returncode == 0, result.stderr
    assert "due:       2026-12-02T16:00:00+01:00 (Europe/Zagreb)" in result.stdout
    healthy = duetime("health", "--server", tls_server.address, "--tls-ca", str(pki.ca))
    assert (healthy.returncode, healthy.stdout) == (0, "SERVING\n")
    plain = duetime("health", "--server", tls_server.address, "--timeout", "3")
    assert plain.returncode == 1 and plain.stdout.startswith("UNAVAILABLE")
    assert len(plain.stdout.splitlines()) == 1
    with DuetimeClient(tls_server.address, tls_ca=pki.ca, timeout=10) as client:
        answer = client.compute_due_time(dt.datetime(2026, 11, 27, 15, tzinfo=dt.timezone.utc),
                                         "3bd", "hr-zagreb")
    assert answer.due == dt.datetime(2026, 12, 2, 15, tzinfo=dt.timezone.utc)


# ---------------------------------------------------------------------------
# mutual TLS and bearer tokens


@pytest.fixture(scope="module", name="mtls_server")
def mtls_server_fixture(pki, tmp_path_factory):
    """Mutual TLS and bearer tokens (two tokens in the file), set by flags."""
    root = tmp_path_factory.mktemp("mtls")
    tokens = root / "tokens"
    tokens.write_text(f"# duetime callers\n{TOKEN}\n\n  {OTHER_TOKEN}  \n")
    server = OpsServer(root / "ledger.db", "--tls-cert", str(pki.server), "--tls-key",
                       str(pki.server_key), "--tls-client-ca", str(pki.ca),
                       "--auth-tokens", str(tokens),
                       connection=ConnectionOptions(tls_ca=pki.ca, tls_cert=pki.client,
                                                    tls_key=pki.client_key, token=TOKEN))
    try:
        yield server
        assert server.terminate() == 0, "".join(server.stderr)
    finally:
        server.kill()


def _mtls(server: OpsServer, pki: Pki, cert: Path | None, key: Path | None,
          token: str | None = TOKEN) -> grpc.Channel:
    return open_channel(server.address, ConnectionOptions(tls_ca=pki.ca, tls_cert=cert,
                                                          tls_key=key, token=token))


def test_mtls_refuses_clients_without_a_certificate_from_the_ca(mtls_server, pki):
    with _mtls(mtls_server, pki, pki.client, pki.client_key) as good:
        assert call_code(good) == grpc.StatusCode.OK
    with _mtls(mtls_server, pki, None, None) as anonymous:
        assert call_code(anonymous, timeout=5) == grpc.StatusCode.UNAVAILABLE
    with _mtls(mtls_server, pki, pki.stranger, pki.stranger_key) as stranger:
        assert call_code(stranger, timeout=5) == grpc.StatusCode.UNAVAILABLE
    log = "".join(mtls_server.stderr)
    assert "client certificates required, issued by " + str(pki.ca) in log


def _unauthenticated(channel: grpc.Channel, call) -> tuple[grpc.StatusCode, str, str]:
    with pytest.raises(grpc.RpcError) as caught:
        call(channel)
    info = ErrorInfo()
    for detail in rpc_status.from_call(caught.value).details:
        detail.Unpack(info)
    return caught.value.code(), info.reason, caught.value.details()


def test_tokens_missing_wrong_and_right(mtls_server, pki):
    def due(channel):
        return pb_grpc.DueTimeServiceStub(channel).ComputeDueTime(zagreb_request(), timeout=10)

    with _mtls(mtls_server, pki, pki.client, pki.client_key, token=None) as none:
        code, reason, message = _unauthenticated(none, due)
        assert (code, reason) == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING")
        assert "authorization: Bearer <token>" in message
        for service in ("", "duetime.v1.DueTimeService"):  # health needs no token
            reply = health_pb2_grpc.HealthStub(none).Check(
                health_pb2.HealthCheckRequest(service=service), timeout=10)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
        with pytest.raises(grpc.RpcError) as caught:  # reflection does
            ProtoReflectionDescriptorDatabase(none).get_services()
        assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
        code, reason, _ = _unauthenticated(none, lambda c: pb_grpc.CalendarServiceStub(c)
                                           .ListCalendars(pb.ListCalendarsRequest(), timeout=10))
        assert (code, reason) == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING")
    for wrong in ("tok-3f9a1c.PRIMARY_token~v2", TOKEN[:-1], TOKEN + "x"):
        with _mtls(mtls_server, pki, pki.client, pki.client_key, token=wrong) as bad:
            code, reason, message = _unauthenticated(bad, due)
            assert (code, reason) == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_INVALID")
            assert wrong not in message
    basic = (("authorization", f"Basic {TOKEN}"),)
    with _mtls(mtls_server, pki, pki.client, pki.client_key, token=None) as plain:
        assert call_code(plain, metadata=basic) == grpc.StatusCode.UNAUTHENTICATED
        assert call_code(plain, metadata=(("authorization", f"bearer {OTHER_TOKEN}"),)) == \
            grpc.StatusCode.OK
    with _mtls(mtls_server, pki, pki.client, pki.client_key, token=TOKEN) as good:
        assert call_code(good) == grpc.StatusCode.OK
        services = ProtoReflectionDescriptorDatabase(good).get_services()
        assert "duetime.v1.DueTimeService" in services
    log = "".join(mtls_server.stderr)
    assert "bearer tokens required: 2 token(s)" in log
    assert TOKEN not in log and OTHER_TOKEN not in log


def test_cli_with_client_certificate_and_token(mtls_server, pki):
    tls = ["--tls-ca", str(pki.ca), "--tls-cert", str(pki.client), "--tls-key",
           str(pki.client_key)]
    result = duetime(*ZAGREB, "--server", mtls_server.address, *tls,
                     env={"DUETIME_TOKEN": OTHER_TOKEN})
    assert result.returncode == 0, result.stderr
    assert "due (UTC): 2026-12-02T15:00:00Z" in result.stdout
    refused = duetime(*ZAGREB, "--server", mtls_server.address, *tls, "--token", "nope")
    assert refused.returncode == 1
    assert refused.stderr.startswith("error: UNAUTHENTICATED: the bearer token")
    listed = duetime("calendars", "list", "--server", mtls_server.address, *tls,
                     "--token", TOKEN)
    assert listed.returncode == 0 and "hr-zagreb" in listed.stdout
    healthy = duetime("health", "--server", mtls_server.address, *tls)  # no token needed
    assert (healthy.returncode, healthy.stdout) == (0, "SERVING\n")
    no_cert = duetime("health", "--server", mtls_server.address, "--tls-ca", str(pki.ca),
                      "--timeout", "3")
    assert no_cert.returncode == 1 and no_cert.stdout.startswith("UNAVAILABLE")
    half = duetime("health", "--server", mtls_server.address, "--tls-cert", str(pki.client))
    assert half.returncode == 2
    assert half.stderr == ("error: --tls-cert: a client certificate and its private key go "
                           "together; give both or neither\n")
