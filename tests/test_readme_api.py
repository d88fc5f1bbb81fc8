"""README.md lists the whole API: every RPC of the proto's services is named in
"The API" section, and every RPC with a ``google.api.http`` option has its
row in the HTTP/JSON table with exactly the proto's verb and path."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROTO = (ROOT / "proto" / "duetime" / "v1" / "duetime.proto").read_text(encoding="utf-8")
README = (ROOT / "README.md").read_text(encoding="utf-8")

RPC = re.compile(r"^\s*rpc (\w+)\(.*?\)\s*returns\s*\(.*?\)\s*(;|\{(.*?)\n  \})", re.M | re.S)
HTTP = re.compile(r"\b(get|post):\s*\"([^\"]+)\"")


def _section(title: str) -> str:
    start = README.index(f"\n## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start:end]


def rpcs() -> dict[str, tuple[str, str] | None]:
    """Every RPC of the proto, with its (verb, path) when it has one."""
    found = {}
    for match in RPC.finditer(PROTO):
        http = HTTP.search(match[3] or "")
        found[match[1]] = (http[1].upper(), http[2]) if http else None
    return found


def test_the_proto_has_the_rpcs_this_test_reads():
    names = rpcs()
    assert {"ComputeDueTime", "ListOpenPeriods", "CountBusinessDays", "GetPolicy",
            "StreamComputeDueTimes"} <= set(names)
    assert names["ListOpenPeriods"] == ("POST", "/v1/openPeriods:list")
    assert names["CountBusinessDays"] == ("POST", "/v1/businessDays:count")


def test_every_rpc_is_named_in_the_api_section():
    section = _section("The API")
    missing = [name for name in rpcs() if f"`{name}(" not in section]
    assert missing == []


def test_every_rpc_has_its_http_row():
    table = {row[0]: row[1] for row in re.findall(r"^\| (\w+) \| (.+?) \|$",
                                                   _section("HTTP/JSON"), re.M)}
    for name, http in rpcs().items():
        assert name in table, name
        if http is None:
            assert "not over HTTP" in table[name]
        else:
            verb, path = http
            assert table[name].startswith(f"`{verb} {path}"), (name, table[name])
