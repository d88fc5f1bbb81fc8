"""What a browser on another site cannot make the HTTP face do: POST bodies
must be ``application/json`` (415), an ``Origin`` other than the server's
own or a listed one is 403 (with CORS answers for listed ones), a ``Host``
other than the loopback names is 403 when the server listens on loopback
(DNS rebinding); and the metrics port answers ``/metrics`` only.
"""

from __future__ import annotations

import urllib.error
import urllib.request

import anyio
import httpx
import pytest
from duetime.api import http
from duetime.compose import build_app
from duetime.config import ConfigError, parse_origin, resolve
from duetime.metrics import Metrics
from server_process import start_with_http

ZAGREB = (b'{"start": "2026-11-27T16:00:00+01:00", "duration": "3bd", "calendar": '
          b'{"timeZone": "Europe/Zagreb", "holidays": [{"date": "2026-12-25"}, '
          b'{"date": "2026-12-26"}]}}')
JSON = {"Content-Type": "application/json"}
TOOLS = "https://tools.example.com"


def refused(status: str, code: int, field: str, description: str, reason: str) -> dict:
    """The AIP-193 body of a refusal on one header."""
    return {"error": {
        "code": code, "message": f"{field}: {description}", "status": status,
        "details": [
            {"@type": "type.googleapis.com/google.rpc.BadRequest",
             "fieldViolations": [{"field": field, "description": description}]},
            {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": reason,
             "domain": "duetime.dev"}]}}


def media_type_refused(sent: str) -> dict:
    said = f"is {sent!r}" if sent else "is missing"
    return refused("INVALID_ARGUMENT", 415, "header Content-Type",
                   f"{said}; a request body must be JSON: send 'Content-Type: application/json' "
                   "(a charset parameter may follow: '; charset=utf-8')",
                   "UNSUPPORTED_MEDIA_TYPE")


def origin_refused(origin: str, own: str, listed: str = "") -> dict:
    return refused("PERMISSION_DENIED", 403, "header Origin",
                   f"{origin!r} may not call this server from a browser: only {own}"
                   + (f" and {listed}" if listed else "")
                   + " may (serve with --http-allow-origin ORIGIN to add one)",
                   "ORIGIN_NOT_ALLOWED")


def host_refused(name: str, answers: str = "127.0.0.1, [::1], localhost") -> dict:
    return refused("PERMISSION_DENIED", 403, "header Host",
                   f"{name!r} is not a name of this server; it answers {answers} (serve with "
                   "--http-allow-host NAME to add one)", "HOST_NOT_ALLOWED")


class Client:
    """The ASGI app of a server on 127.0.0.1:8080, called in process."""

    def __init__(self, asgi):
        self.transport = httpx.ASGITransport(app=asgi)

    def request(self, method: str, url: str, **kwargs) -> httpx.Response:
        async def send() -> httpx.Response:
            async with httpx.AsyncClient(transport=self.transport,
                                         base_url="http://127.0.0.1:8080") as client:
                response = await client.request(method, url, **kwargs)
                await response.aread()
                return response

        return anyio.run(send)


@pytest.fixture(scope="module")
def app():
    built = build_app(None)
    yield built
    built.close()


@pytest.fixture(scope="module")
def client(app):
    return Client(http.create_app(app, log_calls=False, allowed_origins=[TOOLS],
                                  allowed_hosts=http.host_allowlist("127.0.0.1")))


def post(client: Client, headers: dict, body: bytes = ZAGREB) -> httpx.Response:
    return client.request("POST", "/v1/dueTimes:compute", content=body, headers=headers)


# ---------------------------------------------------------------------------
# Content-Type


@pytest.mark.parametrize("content_type", [
    "application/json", "application/json; charset=utf-8", "Application/JSON;charset=UTF-8",
    'application/json; charset="utf-8"', "application/json; foo=bar",
])
def test_a_json_body_is_answered(client, content_type):
    response = post(client, {"Content-Type": content_type})
    assert response.status_code == 200, response.text
    assert response.json()["due"] == "2026-12-02T15:00:00Z"


@pytest.mark.parametrize("content_type", [
    "", "text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x", "application/json-seq", "application/json; charset=latin-1",
])
def test_a_body_not_said_to_be_json_is_415(client, content_type):
    headers = {"Content-Type": content_type} if content_type else {}
    response = post(client, headers)
    assert response.status_code == 415
    assert response.headers["content-type"] == "application/json"
    assert response.json() == media_type_refused(content_type)


def test_the_content_type_is_checked_before_the_body_is_read(app):
    small = Client(http.create_app(app, log_calls=False, max_body_bytes=10))
    assert post(small, {"Content-Type": "text/plain"}).status_code == 415
    assert post(small, JSON).status_code == 413


def test_gets_need_no_content_type(client):
    response = client.request("GET", "/v1/calendars")
    assert response.status_code == 200, response.text


# ---------------------------------------------------------------------------
# Origin and CORS


def test_requests_without_an_origin_and_from_the_own_origin_are_answered(client):
    for headers in ({}, {"Origin": "http://127.0.0.1:8080"}):
        response = post(client, {**JSON, **headers})
        assert response.status_code == 200, response.text
        assert response.headers["vary"] == "Origin"
        assert "access-control-allow-origin" not in response.headers


@pytest.mark.parametrize("origin", [
    "https://evil.example", "http://127.0.0.1:8081", "https://127.0.0.1:8080", "null",
    "http://localhost:8080", "https://tools.example.com:8443",
])
def test_a_foreign_origin_is_403_and_nothing_is_computed(client, origin):
    response = post(client, {**JSON, "Origin": origin})
    assert response.status_code == 403
    assert response.json() == origin_refused(origin, "http://127.0.0.1:8080", TOOLS)
    assert response.headers["vary"] == "Origin"


def test_a_cross_site_text_plain_post_is_refused_on_its_origin(client):
    response = post(client, {"Content-Type": "text/plain;charset=UTF-8",
                             "Origin": "https://evil.example"})
    assert response.status_code == 403
    assert response.json()["error"]["details"][1]["reason"] == "ORIGIN_NOT_ALLOWED"


def test_a_listed_origin_gets_cors_answers(client):
    preflight = client.request("OPTIONS", "/v1/dueTimes:compute", headers={
        "Origin": TOOLS, "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type, authorization"})
    assert preflight.status_code == 204
    assert {k: v for k, v in preflight.headers.items() if k != "content-length"} == {
        "access-control-allow-origin": TOOLS,
        "access-control-allow-methods": "GET, POST",
        "access-control-allow-headers": "Authorization, Content-Type, X-Duetime-Namespace",
        "access-control-max-age": "600",
        "vary": "Origin"}
    assert preflight.content == b""
    answered = post(client, {**JSON, "Origin": TOOLS})
    assert answered.status_code == 200, answered.text
    assert (answered.headers["access-control-allow-origin"], answered.headers["vary"]) == (
        TOOLS, "Origin")
    failed = post(client, {"Origin": TOOLS})  # refusals carry it too, so the page can read them
    assert failed.status_code == 415
    assert failed.headers["access-control-allow-origin"] == TOOLS


def test_a_preflight_from_a_foreign_origin_is_403(client):
    response = client.request("OPTIONS", "/v1/dueTimes:compute", headers={
        "Origin": "https://evil.example", "Access-Control-Request-Method": "POST"})
    assert response.status_code == 403
    assert response.json() == origin_refused("https://evil.example", "http://127.0.0.1:8080",
                                             TOOLS)
    assert "access-control-allow-origin" not in response.headers


def test_without_listed_origins_only_the_own_origin_passes(app):
    plain = Client(http.create_app(app, log_calls=False))
    assert post(plain, {**JSON, "Origin": "http://127.0.0.1:8080"}).status_code == 200
    response = post(plain, {**JSON, "Origin": TOOLS})
    assert response.json() == origin_refused(TOOLS, "http://127.0.0.1:8080")


# ---------------------------------------------------------------------------
# Host


@pytest.mark.parametrize("host", [
    "127.0.0.1:8080", "localhost:8080", "[::1]:8080", "LOCALHOST", "localhost.:8080", "127.0.0.1",
])
def test_loopback_names_are_answered(client, host):
    response = post(client, {**JSON, "Host": host})
    assert response.status_code == 200, response.text


@pytest.mark.parametrize("host, name", [
    ("evil.example:8080", "evil.example"), ("evil.example", "evil.example"),
    ("127.0.0.1.nip.io:8080", "127.0.0.1.nip.io"), ("[::2]:8080", "[::2]"),
    ("duetime.internal", "duetime.internal"),
])
def test_another_host_name_is_403_on_loopback(client, host, name):
    response = post(client, {**JSON, "Host": host, "Origin": f"http://{host}"})
    assert response.status_code == 403
    assert response.json() == host_refused(name)


def test_dns_rebinding_is_refused_before_the_origin_is_read(client):
    """The rebinding page's requests are same-origin for the browser (its
    Origin is the attacker's name, and so is Host): the Host check stops them."""
    response = post(client, {"Host": "attacker.example:8080",
                             "Origin": "http://attacker.example:8080",
                             "Content-Type": "text/plain"})
    assert response.json() == host_refused("attacker.example")


def test_allowed_host_names_add_to_the_loopback_ones(app):
    allowed = http.host_allowlist("127.0.0.1", ["duetime.internal", "*.corp.example"])
    guarded = Client(http.create_app(app, log_calls=False, allowed_hosts=allowed))
    for host in ("duetime.internal:8080", "a.corp.example", "b.a.corp.example", "localhost"):
        assert post(guarded, {**JSON, "Host": host}).status_code == 200, host
    response = post(guarded, {**JSON, "Host": "corp.example.evil"})
    assert response.json() == host_refused(
        "corp.example.evil", "*.corp.example, 127.0.0.1, [::1], duetime.internal, localhost")


def test_which_host_names_apply_where():
    loopback = frozenset({"localhost", "127.0.0.1", "[::1]"})
    assert http.host_allowlist("127.0.0.1") == loopback
    assert http.host_allowlist("localhost") == loopback
    assert http.host_allowlist("::1") == loopback
    assert http.host_allowlist("127.0.0.2") == loopback | {"127.0.0.2"}
    assert http.host_allowlist("0.0.0.0") is None  # every interface: any Host unless named
    assert http.host_allowlist("::") is None
    assert http.host_allowlist("10.0.0.5") is None
    assert http.host_allowlist("0.0.0.0", ["duetime.example.com"]) == loopback | {
        "0.0.0.0", "duetime.example.com"}


def test_any_host_passes_without_an_allowlist(app):
    open_app = Client(http.create_app(app, log_calls=False))
    assert post(open_app, {**JSON, "Host": "duetime.example.com"}).status_code == 200


# ---------------------------------------------------------------------------
# the settings


def test_the_origin_and_host_flags_repeat_and_have_variables():
    from duetime.cli import parser

    args = parser().parse_args(["serve", "--http-allow-origin", "https://A.example.com:443",
                                "--http-allow-origin", "http://localhost:3000",
                                "--http-allow-host", "Duetime.Internal"])
    config = resolve(args, {})
    assert config.http_allow_origin == ("https://a.example.com", "http://localhost:3000")
    assert config.http_allow_host == ("duetime.internal",)
    config = resolve({}, {"DUETIME_HTTP_ALLOW_ORIGIN": "https://a.example.com, http://b:81",
                          "DUETIME_HTTP_ALLOW_HOST": "x.example y.example"})
    assert config.http_allow_origin == ("https://a.example.com", "http://b:81")
    assert config.http_allow_host == ("x.example", "y.example")
    assert resolve({}, {}).http_allow_origin == resolve({}, {}).http_allow_host == ()


@pytest.mark.parametrize("env, value, message", [
    ("DUETIME_HTTP_ALLOW_ORIGIN", "tools.example.com",
     "'tools.example.com' is not an origin; give scheme://host[:port], e.g. "
     "https://tools.example.com or http://localhost:3000"),
    ("DUETIME_HTTP_ALLOW_ORIGIN", "https://a.example.com/app",
     "'https://a.example.com/app' is not an origin; give scheme://host[:port], e.g. "
     "https://tools.example.com or http://localhost:3000"),
    ("DUETIME_HTTP_ALLOW_HOST", "evil.example:8080",
     "'evil.example:8080' is not a host name; give a name or address without the port, e.g. "
     "duetime.internal, *.example.com or 10.0.0.5"),
])
def test_a_bad_origin_or_host_is_named(env, value, message):
    with pytest.raises(ConfigError) as caught:
        resolve({}, {env: value})
    assert (caught.value.setting, caught.value.message) == (env, message)


def test_origins_are_compared_in_canonical_form():
    assert parse_origin("HTTPS://Tools.Example.COM:443") == TOOLS
    assert parse_origin("http://[::1]:8080") == "http://[::1]:8080"


# ---------------------------------------------------------------------------
# a real server


def test_a_served_port_guards_host_and_origin_and_keeps_its_own_origin(tmp_path):
    server = start_with_http(tmp_path / "ledger.db", "--http-allow-origin", TOOLS,
                             "--http-allow-host", "duetime.internal")
    try:
        own = server.http_url
        with httpx.Client(base_url=own, timeout=10, headers=JSON) as client:
            assert client.post("/v1/dueTimes:compute", content=ZAGREB,
                               headers={"Origin": own}).status_code == 200
            assert client.post("/v1/dueTimes:compute", content=ZAGREB,
                               headers={"Host": "duetime.internal"}).status_code == 200
            listed = client.post("/v1/dueTimes:compute", content=ZAGREB, headers={"Origin": TOOLS})
            assert listed.headers["access-control-allow-origin"] == TOOLS
            rebound = client.post("/v1/dueTimes:compute", content=ZAGREB,
                                  headers={"Host": "rebind.example"})
            assert rebound.status_code == 403
            assert rebound.json() == host_refused(
                "rebind.example", "127.0.0.1, [::1], duetime.internal, localhost")
            foreign = client.post("/v1/dueTimes:compute", content=ZAGREB,
                                  headers={"Origin": "https://evil.example"})
            assert foreign.json() == origin_refused("https://evil.example", own, TOOLS)
            page = client.get("/", headers={"Origin": own})
            assert page.status_code == 200 and page.headers["vary"] == "Origin"
        assert server.terminate() == 0, "".join(server.stderr)
    finally:
        server.kill()


# ---------------------------------------------------------------------------
# the metrics port


def fetch(url: str, method: str = "GET") -> tuple[int, bytes]:
    request = urllib.request.Request(url, method=method, data=b"{}" if method == "POST" else None)
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status, reply.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_the_metrics_port_answers_metrics_only():
    metrics = Metrics()
    port = metrics.serve("127.0.0.1", 0)
    base = f"http://127.0.0.1:{port}"
    not_found = (b"404 not found: this port serves only GET /metrics (Prometheus metrics); "
                 b"the API is on the gRPC and HTTP ports\n")
    try:
        status, body = fetch(f"{base}/metrics")
        assert status == 200 and b"duetime_build_info{" in body
        assert fetch(f"{base}/metrics", "HEAD") == (200, b"")
        assert fetch(f"{base}/metrics?name[]=duetime_build_info")[0] == 200
        for path in ("/", "/favicon.ico", "/metrics/", "/metrics/x", "/v1/calendars", "/debug"):
            assert fetch(f"{base}{path}") == (404, not_found), path
        assert fetch(f"{base}/metrics", "POST") == (404, not_found)
        assert fetch(f"{base}/", "HEAD") == (404, b"")
    finally:
        metrics.close()
