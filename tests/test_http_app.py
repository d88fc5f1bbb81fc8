"""The HTTP/JSON application in process (httpx's ASGI transport over an
in-memory ledger): limits, bearer tokens, the playground's static files, the
status table and the path templates it accepts from the proto."""

from __future__ import annotations

import ssl

import anyio
import httpx
import pytest
from duetime.api import http
from duetime.compose import build_app
from duetime.auth import TokenSet
from duetime.ledger import MemoryLedger
from google.protobuf import json_format
from google.rpc import code_pb2, status_pb2

JSON_BODY = {"Content-Type": "application/json"}
"""Every POST says its body is JSON (a body said to be anything else is 415)."""
ZAGREB_JSON = (b'{"start": "2026-11-27T16:00:00+01:00", "duration": "3bd", "calendar": '
               b'{"timeZone": "Europe/Zagreb", "holidays": [{"date": "2026-12-25"}, '
               b'{"date": "2026-12-26"}]}}')
TOKEN = "s3cret-token.1"


class Client:
    """A synchronous client of an ASGI app, in process (one event loop a request)."""

    def __init__(self, app):
        self.transport = httpx.ASGITransport(app=app)

    def request(self, method: str, url: str, **kwargs) -> httpx.Response:
        async def send() -> httpx.Response:
            async with httpx.AsyncClient(transport=self.transport, headers=JSON_BODY,
                                         base_url="http://duetime.test") as client:
                response = await client.request(method, url, **kwargs)
                await response.aread()
                return response

        return anyio.run(send)

    def get(self, url: str, **kwargs) -> httpx.Response:
        return self.request("GET", url, **kwargs)

    def post(self, url: str, **kwargs) -> httpx.Response:
        return self.request("POST", url, **kwargs)


def status_of_body(response) -> status_pb2.Status:
    error = response.json()["error"]
    assert response.status_code == error["code"]
    status = status_pb2.Status(code=code_pb2.Code.Value(error["status"]), message=error["message"])
    for detail in error["details"]:
        json_format.ParseDict(detail, status.details.add())
    return status


@pytest.fixture
def playground(tmp_path):
    folder = tmp_path / "playground"
    folder.mkdir()
    (folder / "index.html").write_text("<!doctype html><title>duetime playground</title>\n")
    (folder / "app.js").write_text("console.log('duetime');\n")
    return folder


@pytest.fixture
def client(playground):
    app = build_app(MemoryLedger())
    yield Client(http.create_app(app, max_body_bytes=len(ZAGREB_JSON) + 10,
                                 playground=playground))
    app.close()


@pytest.fixture
def token_client(tmp_path, playground):
    tokens = tmp_path / "tokens"
    tokens.write_text(f"# the tokens\n{TOKEN}\n")
    app = build_app(MemoryLedger())
    yield Client(http.create_app(app, TokenSet(tokens), playground=playground))
    app.close()


def test_a_body_within_the_limit_is_answered(client):
    response = client.post("/v1/dueTimes:compute", content=ZAGREB_JSON)
    assert response.status_code == 200, response.text
    assert response.json()["due"] == "2026-12-02T15:00:00Z"


def test_a_body_over_the_limit_is_413(client):
    body = ZAGREB_JSON[:-1] + b', "idempotencyKey": "k-long-enough"}'
    response = client.post("/v1/dueTimes:compute", content=body)
    assert response.status_code == 413
    error = response.json()["error"]
    limit = len(ZAGREB_JSON) + 10
    assert (error["status"], error["message"]) == (
        "RESOURCE_EXHAUSTED",
        f"the request body is {len(body)} bytes; at most {limit} bytes are accepted (the server's "
        "--max-message-bytes): send a smaller request (a batch split in parts, or a stream)")
    assert error["details"][0]["fieldViolations"][0]["field"] == "body"


def test_a_chunked_body_over_the_limit_is_413(client):
    async def chunks():
        yield ZAGREB_JSON
        yield b" " * 64

    response = client.post("/v1/dueTimes:compute", content=chunks())
    assert response.status_code == 413
    assert response.json()["error"]["message"] == (
        f"the request body is more than {len(ZAGREB_JSON) + 10} bytes; at most "
        f"{len(ZAGREB_JSON) + 10} bytes are accepted (the server's --max-message-bytes): send a "
        "smaller request (a batch split in parts, or a stream)")


def test_a_body_over_the_limit_is_counted_as_docs_operations_says(playground):
    """docs/operations.md (Limits): an HTTP body over the limit is counted
    under its method with code RESOURCE_EXHAUSTED; a 404 or 405 is not."""
    from duetime.metrics import Metrics

    metrics, app = Metrics(), build_app(MemoryLedger())
    try:
        served = Client(http.create_app(app, max_body_bytes=len(ZAGREB_JSON) + 10,
                                        playground=playground, metrics=metrics,
                                        log_calls=False))
        codes = [served.post("/v1/dueTimes:compute", content=ZAGREB_JSON + b" " * 64).status_code,
                 served.post("/v1/dueTimes:compute", content=ZAGREB_JSON).status_code,
                 served.get("/v1/nothing").status_code, served.post("/v1/records").status_code]
    finally:
        app.close()
    assert codes == [413, 200, 404, 405]
    counted = {(s.labels["method"], s.labels["code"]): s.value
               for family in metrics.registry.collect() if family.name == "duetime_rpc_requests"
               for s in family.samples if s.name == "duetime_rpc_requests_total"}
    assert counted == {("/duetime.v1.DueTimeService/ComputeDueTime", "RESOURCE_EXHAUSTED"): 1.0,
                       ("/duetime.v1.DueTimeService/ComputeDueTime", "OK"): 1.0}


def test_the_playground_is_served_at_the_root(client, playground):
    index = client.get("/")
    assert index.status_code == 200
    assert index.text == (playground / "index.html").read_text()
    assert index.headers["content-type"].startswith("text/html")
    script = client.get("/app.js")
    assert (script.status_code, script.text) == (200, "console.log('duetime');\n")


def test_a_missing_file_is_a_json_404(client):
    response = client.get("/missing.js")
    assert response.status_code == 404
    assert response.json()["error"]["status"] == "NOT_FOUND"
    assert response.json()["error"]["details"][0]["metadata"] == {"path": "/missing.js"}


def test_an_api_path_with_another_method_is_405_despite_the_playground(client):
    response = client.post("/v1/records")
    assert response.status_code == 405
    assert set(response.headers["allow"].split(", ")) == {"GET", "HEAD"}
    assert response.json()["error"]["status"] == "UNIMPLEMENTED"


def test_without_a_token_the_api_is_401_as_over_grpc(token_client):
    from duetime.auth import MISSING

    response = token_client.post("/v1/dueTimes:compute", content=ZAGREB_JSON)
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"
    expected = status_pb2.Status.FromString(dict(MISSING.trailing_metadata)[
        "grpc-status-details-bin"])
    answered = status_of_body(response)  # gRPC's code and details, in HTTP's words
    assert (answered.code, answered.details) == (expected.code, expected.details)
    assert answered.message == ("this server needs a bearer token: send the header "
                                "'Authorization: Bearer <token>'")


def test_a_wrong_token_is_401_as_over_grpc(token_client):
    from duetime.auth import INVALID

    response = token_client.get("/v1/calendars", headers={"Authorization": "Bearer nope"})
    assert response.status_code == 401
    expected = status_pb2.Status.FromString(dict(INVALID.trailing_metadata)[
        "grpc-status-details-bin"])
    answered = status_of_body(response)  # gRPC's code and details, in HTTP's words
    assert (answered.code, answered.details) == (expected.code, expected.details)
    assert answered.message == ("the bearer token in the 'Authorization' header is not one "
                                "this server accepts")


def test_the_right_token_is_answered(token_client):
    response = token_client.post("/v1/dueTimes:compute", content=ZAGREB_JSON,
                                 headers={"Authorization": f"bearer {TOKEN}"})
    assert response.status_code == 200, response.text
    assert response.json()["dueLocal"] == "2026-12-02T16:00:00+01:00"


def test_the_playground_needs_no_token(token_client, playground):
    response = token_client.get("/")
    assert (response.status_code, response.text) == (200, (playground / "index.html").read_text())


@pytest.mark.parametrize("query, field, description", [
    ("keyPrefix=a&startTime=yesterday", "startTime",
     "'yesterday' is not an RFC 3339 instant such as 2026-11-27T16:00:00+01:00 (date, T, "
     "hours and minutes, optional seconds and fraction, then Z or an offset ±HH:MM)"),
    ("key_prefix=a&page_size=1&page_size=2", "page_size", "is given 2 times; give it once"),
    ("pageSize=ten", "pageSize", "must be an integer"),
])
def test_a_bad_query_parameter_is_400_naming_it(client, query, field, description):
    response = client.get(f"/v1/records?{query}")
    assert response.status_code == 400
    violations = response.json()["error"]["details"][0]["fieldViolations"]
    assert violations == [{"field": field, "description": description}]


def test_query_parameters_set_timestamps_and_optional_fields(client):
    answered = client.post("/v1/dueTimes:compute", content=ZAGREB_JSON)
    record_id = answered.json()["recordId"]
    found = client.get("/v1/records", params={"startTime": "2000-01-01T00:00:00Z",
                                              "namespace": "", "pageSize": "5"})
    assert [r["recordId"] for r in found.json()["records"]] == [record_id]
    none = client.get("/v1/records", params={"namespace": "team-b"})
    assert none.json() == {"records": [], "nextPageToken": ""}


@pytest.mark.parametrize("code, status", [
    ("INVALID_ARGUMENT", 400), ("OUT_OF_RANGE", 400), ("FAILED_PRECONDITION", 400),
    ("UNAUTHENTICATED", 401), ("PERMISSION_DENIED", 403), ("NOT_FOUND", 404),
    ("ALREADY_EXISTS", 409), ("ABORTED", 409), ("RESOURCE_EXHAUSTED", 429),
    ("INTERNAL", 500), ("UNIMPLEMENTED", 501), ("UNAVAILABLE", 503), ("DEADLINE_EXCEEDED", 504),
])
def test_grpc_codes_map_to_the_standard_http_status(code, status):
    body = http.error_body(status_pb2.Status(code=code_pb2.Code.Value(code), message="m"))
    assert body == {"error": {"code": status, "message": "m", "status": code, "details": []}}


@pytest.mark.parametrize("template, path, variables", [
    ("/v1/dueTimes:compute", "/v1/dueTimes:compute", ()),
    ("/v1/records/{record_id}", "/v1/records/{v0}", (("v0", "record_id"),)),
    ("/v1/a/{x.y=*}/b/{z}:do", "/v1/a/{v0}/b/{v1}:do", (("v0", "x.y"), ("v1", "z"))),
])
def test_path_templates(template, path, variables):
    assert http._router_path(template) == (path, variables)


@pytest.mark.parametrize("template", ["v1/x", "/v1/{name=**}", "/v1/{name=a/*}", "/v1/*",
                                      "/v1/x:{y}"])
def test_unsupported_path_templates_are_refused(template):
    with pytest.raises(ValueError, match="http rule path"):
        http._router_path(template)


# ---- start_http_server: a real listener in this process ---------------------------------


def self_signed(folder) -> tuple:
    """A certificate for 127.0.0.1 signed by itself, and its key, as PEM files."""
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "duetime test")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(hours=1))
            .add_extension(x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = folder / "server.pem", folder / "server.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


def test_https_with_the_servers_certificate(tmp_path):
    cert, key = self_signed(tmp_path)
    app = build_app(MemoryLedger())
    server = http.start_http_server(app, "127.0.0.1", 0, tls_cert=cert, tls_key=key, grace=1)
    try:
        with httpx.Client(base_url=f"https://127.0.0.1:{server.port}", verify=ssl.create_default_context(cafile=cert),
                          timeout=10, headers=JSON_BODY) as client:
            response = client.post("/v1/dueTimes:compute", content=ZAGREB_JSON)
        assert response.status_code == 200, response.text
        assert response.json()["due"] == "2026-12-02T15:00:00Z"
        with pytest.raises(httpx.HTTPError):  # plain HTTP to a TLS port is no answer
            httpx.post(f"http://127.0.0.1:{server.port}/v1/dueTimes:compute",
                       content=ZAGREB_JSON, timeout=10, headers=JSON_BODY)
    finally:
        server.stop()
        app.close()
    assert not server.thread.is_alive()


def test_a_port_in_use_is_refused(tmp_path):
    app = build_app(MemoryLedger())
    first = http.start_http_server(app, "127.0.0.1", 0, grace=1)
    try:
        with pytest.raises(RuntimeError, match=f"cannot bind 127.0.0.1:{first.port} "
                                               r"\(HTTP\): address in use, or not an address of this machine\?"):
            http.start_http_server(app, "127.0.0.1", first.port)
    finally:
        first.stop()
        app.close()
